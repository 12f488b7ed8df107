import { makeFixtureRepo, type Fixture } from '../helpers/fixture-repo.js';

/** The small repository the documentation examples run against: an http client with retries, and billing. */
export function exampleRepo(extra: Record<string, string> = {}): Fixture {
  return makeFixtureRepo([
    {
      date: '2026-01-01T10:00:00Z',
      files: {
        'src/http/retry.ts': '/** Retries a request with exponential backoff. */\nexport function retryWithBackoff(attempts: number): number {\n  return attempts * 2;\n}\n',
        'src/http/client.ts': "import { retryWithBackoff } from './retry.js';\n/** The http client. */\nexport const client = { get: () => retryWithBackoff(3) };\n",
        'src/billing/invoice.ts': '/** Invoice totals. */\nexport function invoiceTotal(lines: number[]): number {\n  return lines.length;\n}\n',
        ...extra,
      },
    },
  ]);
}
