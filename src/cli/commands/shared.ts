import type { Command, OptionValues } from '../command.js';
import { UsageError } from '../../errors.js';
import type { SharedContextHit, SharedEntry } from '../../provider/ports.js';
import { createSharedContext } from '../../provider/shared-factory.js';
import { loadCommandConfig } from '../command-config.js';

const ACTIONS = {
  create: 'aiwg shared create ID [--ttl-hours N] [--replace]',
  inject: 'aiwg shared inject ID KEY CONTENT [--agent NAME] [--strength S] [--expect-sequence N]',
  query: 'aiwg shared query ID TEXT [--agent NAME] [--limit N]',
  list: 'aiwg shared list ID [--agent NAME]',
  destroy: 'aiwg shared destroy ID',
} as const;
type Action = keyof typeof ACTIONS;
const ARITY: Record<Action, number> = { create: 1, inject: 3, query: 2, list: 1, destroy: 1 };

/** `aiwg shared create|inject|query|list|destroy`: the SharedContextPort for scripts and debugging. */
export const sharedCommand: Command = {
  name: 'shared',
  usage: Object.values(ACTIONS).join('\n       '),
  allowPositionals: true,
  options: {
    root: { type: 'string' },
    config: { type: 'string' },
    store: { type: 'string' },
    workspace: { type: 'string' },
    agent: { type: 'string' },
    strength: { type: 'string' },
    'expect-sequence': { type: 'string' },
    limit: { type: 'string' },
    'ttl-hours': { type: 'string' },
    replace: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  help: {
    '--store URL': 'file: (default, <root>/.aiwg/shared), file:DIR, memory: or redis://HOST:PORT; wins over AIWG_SHARED_CONTEXT',
    '--workspace NAME': 'workspace scope (default: shared_context.workspace, "default")',
    '--agent NAME': "inject into / read this agent's scope inside the mission (mission scope when absent)",
    '--strength S': 'inject: weight of the entry (default 1)',
    '--expect-sequence N': 'inject: write only if the key is at sequence N (0 = new key); exit 1 on a conflict',
    '--limit N': 'query: most hits (default 10)',
    '--ttl-hours N': 'create: the context expires N hours after creation, 0 = never (default shared_context.ttl_hours, 2)',
    '--replace': 'create: empty an existing context instead of failing',
    '--root DIR': 'repository root (default: the current directory)',
    '--config FILE': 'config file (default: <root>/.aiwg/rag/config.yaml)',
    '--json': 'print the result as JSON',
  },
  async run({ values, positionals }, io) {
    const action = positionals[0] as Action | undefined;
    if (action === undefined || !Object.hasOwn(ACTIONS, action)) {
      throw new UsageError(`give an action: ${Object.keys(ACTIONS).join(', ')} (e.g. ${ACTIONS.create})`);
    }
    const args = positionals.slice(1);
    if (args.length !== ARITY[action]) throw new UsageError(`${action} takes ${ARITY[action]} argument(s): ${ACTIONS[action]}`);
    const flags = { shared_context: { url: stringFlag(values, 'store'), workspace: stringFlag(values, 'workspace') } };
    const { root, config } = await loadCommandConfig(values, io, { flags });
    const shared = createSharedContext({ root, config });
    const agent = stringFlag(values, 'agent');
    const json = values.json === true;
    const [id, second, third] = args as [string, string | undefined, string | undefined];
    try {
      if (action === 'create') {
        const hours = numberFlag(values, 'ttl-hours', (n) => n >= 0, 'a number of hours >= 0');
        const ttlMs = hours === undefined ? undefined : Math.round(hours * 3_600_000);
        await shared.createContext(id, { replace: values.replace === true, ...(ttlMs === undefined ? {} : { ttlMs }) });
        io.stdout(json ? `${JSON.stringify({ created: id })}\n` : `created shared context ${id}\n`);
      } else if (action === 'inject') {
        const strength = numberFlag(values, 'strength', (n) => n >= 0, 'a number >= 0');
        const expectSequence = numberFlag(values, 'expect-sequence', (n) => Number.isInteger(n) && n >= 0, 'a whole number >= 0');
        const sequence = await shared.inject(id, { key: second!, content: third!, strength, agent, expectSequence });
        io.stdout(json ? `${JSON.stringify({ key: second, sequence })}\n` : `injected ${second} into ${id} at sequence ${sequence}\n`);
      } else if (action === 'query') {
        const limit = numberFlag(values, 'limit', (n) => Number.isInteger(n) && n > 0, 'a positive whole number');
        const hits = await shared.query(id, second!, { limit, agent });
        io.stdout(json ? `${JSON.stringify({ hits }, null, 2)}\n` : renderEntries(hits));
      } else if (action === 'list') {
        const entries = await shared.entries(id, { agent });
        io.stdout(json ? `${JSON.stringify({ entries }, null, 2)}\n` : renderEntries(entries));
      } else {
        await shared.destroy(id);
        io.stdout(json ? `${JSON.stringify({ destroyed: id })}\n` : `destroyed shared context ${id}\n`);
      }
    } finally {
      await shared.close();
    }
    return 0;
  },
};

function stringFlag(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} needs a value`);
  return value;
}

function numberFlag(values: OptionValues, name: string, valid: (n: number) => boolean, what: string): number | undefined {
  const text = stringFlag(values, name);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || !valid(n)) throw new UsageError(`--${name} ${text}: use ${what}`);
  return n;
}

/** One entry per line: `#sequence key [agent] (score): content` with newlines shown as `\n`. */
function renderEntries(entries: Array<SharedEntry | SharedContextHit>): string {
  if (entries.length === 0) return '(no entries)\n';
  return entries
    .map((e) => {
      const score = 'score' in e ? ` score ${e.score.toFixed(3)}` : '';
      const scope = e.agent === undefined ? '' : ` [agent ${e.agent}]`;
      return `#${e.sequence} ${e.key}${scope}${score}: ${e.content.replace(/\n/g, '\\n')}\n`;
    })
    .join('');
}
