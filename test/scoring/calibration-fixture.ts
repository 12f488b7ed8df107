/**
 * A small but realistic TypeScript service used to check calibration: the tiers the default
 * thresholds give must match what a developer would pick for the task.
 */
export const SERVICE_FILES: Record<string, string> = {
  'package.json': '{ "name": "acme-service", "type": "module", "dependencies": { "undici": "^6.0.0" } }\n',
  'tsconfig.json': '{ "compilerOptions": { "module": "NodeNext", "strict": true, "baseUrl": "." } }\n',
  'README.md': '# acme-service\n\nTalks to the billing API over HTTP and stores invoices in Postgres.\n\nRun `npm start`.\n',
  'docs/architecture.md':
    '# Architecture\n\nThe HTTP layer (src/http) wraps fetch with timeouts and retries. Auth (src/auth) refreshes OAuth tokens.\n' +
    'Persistence (src/db) uses a connection pool. Logging goes through src/util/logger.ts.\n',
  'src/http/client.ts': `import { RetryPolicy, delayFor } from './retry.js';
import { mergeHeaders } from './headers.js';
import { logger } from '../util/logger.js';

export interface RequestOptions { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number }

/** HTTP client with per-request timeout and retries. */
export class HttpClient {
  constructor(private readonly baseUrl: string, private readonly retry: RetryPolicy = new RetryPolicy()) {}

  async request(path: string, options: RequestOptions = {}): Promise<Response> {
    let attempt = 0;
    for (;;) {
      attempt++;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 10_000);
      try {
        const response = await fetch(this.baseUrl + path, { ...options, headers: mergeHeaders(options.headers), signal: controller.signal });
        if (response.status < 500 || !this.retry.shouldRetry(attempt)) return response;
      } catch (error) {
        if (!this.retry.shouldRetry(attempt)) throw error;
        logger.warn(\`request \${path} timed out, retrying (attempt \${attempt})\`);
        // BUG: the retry happens immediately; delayFor(attempt) is never awaited
      } finally {
        clearTimeout(timer);
      }
    }
  }

  get(path: string) { return this.request(path); }
  post(path: string, body: unknown) { return this.request(path, { method: 'POST', body: JSON.stringify(body) }); }
}
`,
  'src/http/retry.ts': `/** Exponential backoff between retries. */
export class RetryPolicy {
  constructor(readonly maxAttempts = 3, readonly baseDelayMs = 200) {}
  shouldRetry(attempt: number): boolean { return attempt < this.maxAttempts; }
}

export function delayFor(policy: RetryPolicy, attempt: number): number {
  return policy.baseDelayMs * 2 ** (attempt - 1);
}
`,
  'src/http/headers.ts': `export function mergeHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { 'content-type': 'application/json', ...extra };
}
`,
  'src/http/index.ts': "export * from './client.js';\nexport * from './retry.js';\n",
  'src/auth/oauth.ts': `import { HttpClient } from '../http/client.js';

/** Refreshes OAuth access tokens before they expire. */
export class TokenRefresher {
  constructor(private readonly http: HttpClient, private readonly clientId: string) {}
  async refresh(refreshToken: string): Promise<string> {
    const response = await this.http.post('/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: this.clientId });
    const body = (await response.json()) as { access_token: string };
    return body.access_token;
  }
}
`,
  'src/auth/session.ts': `import { TokenRefresher } from './oauth.js';

export class Session {
  constructor(private readonly refresher: TokenRefresher, private token: string, private refreshToken: string) {}
  async accessToken(): Promise<string> { return this.token; }
}
`,
  'src/db/pool.ts': `/** A Postgres connection pool with a fixed size. */
export class ConnectionPool {
  private idle: unknown[] = [];
  constructor(readonly size = 10) {}
  async acquire(): Promise<unknown> { return this.idle.pop(); }
  release(connection: unknown): void { this.idle.push(connection); }
}
`,
  'src/db/invoices.ts': `import { ConnectionPool } from './pool.js';

export async function saveInvoice(pool: ConnectionPool, invoice: { id: string; total: number }): Promise<void> {
  const connection = await pool.acquire();
  pool.release(connection);
  void invoice;
}
`,
  'src/util/logger.ts': `export const logger = {
  info: (message: string) => console.error(\`[info] \${message}\`),
  warn: (message: string) => console.error(\`[warn] \${message}\`),
};
`,
  'src/main.ts': `import { HttpClient } from './http/index.js';
import { ConnectionPool } from './db/pool.js';
import { saveInvoice } from './db/invoices.js';

const http = new HttpClient(process.env.BILLING_URL ?? 'http://localhost');
const pool = new ConnectionPool();
const invoices = (await (await http.get('/invoices')).json()) as Array<{ id: string; total: number }>;
for (const invoice of invoices) await saveInvoice(pool, invoice);
`,
  'test/http/client.test.ts': `import { describe, it, expect } from 'vitest';
import { HttpClient } from '../../src/http/client.js';

describe('HttpClient', () => {
  it('returns the response of a successful request', async () => {
    const client = new HttpClient('http://localhost:1');
    expect(client).toBeDefined();
  });
});
`,
  'test/db/pool.test.ts': `import { it, expect } from 'vitest';
import { ConnectionPool } from '../../src/db/pool.js';

it('hands out released connections', async () => {
  const pool = new ConnectionPool(1);
  pool.release('c');
  expect(await pool.acquire()).toBe('c');
});
`,
};

export const SERVICE_TASK = 'Retries in the HTTP client ignore the backoff delay: after a timeout the request is retried immediately';
