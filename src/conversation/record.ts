import { z } from 'zod';
import type { PreparedMessage } from './ordering.js';
import { sha256Hex } from '../util/hash.js';

/**
 * The session record (spec 002 B and C): what a build leaves for the next one, so it resumes
 * from the rolling summary instead of re-summarising. `folded_groups` groups of the prepared
 * conversation are covered by `summary`; `prefix_sha256` proves they are still the same
 * messages (an edited session is summarised again). `window` lists the messages the build
 * kept, by their 1-based position in the session file.
 */
export const SESSION_RECORD_VERSION = 1;

export const SessionRecordSchema = z.strictObject({
  version: z.literal(SESSION_RECORD_VERSION),
  session_id: z.string(),
  updated_at: z.string(),
  folded_groups: z.number().int().nonnegative(),
  folded_messages: z.number().int().nonnegative(),
  prefix_sha256: z.string(),
  summary: z.string(),
  summarizer: z.string(),
  window: z.array(z.number().int().positive()),
});
export type SessionRecord = z.infer<typeof SessionRecordSchema>;

/** A record that does not parse or has another version is no record (a cache miss, never a crash). */
export function parseSessionRecord(text: string): SessionRecord | null {
  try {
    const parsed = SessionRecordSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Hash of the first `count` groups, over the messages as the session gave them (not as capped). */
export function prefixHash(groups: PreparedMessage[][], count: number): string {
  const canonical = groups.slice(0, count).map((group) =>
    group.map((m) => [m.role, m.content, (m.toolCalls ?? []).map((c) => [c.id, c.name, c.arguments]), m.toolCallId ?? null]),
  );
  return sha256Hex(JSON.stringify(canonical));
}
