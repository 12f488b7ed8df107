import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// Request bodies are whatever the client sent; tests read fields they expect.
export type FakeLlmHandler = (body: any, res: ServerResponse) => void;

/** A fake OpenAI-compatible server on 127.0.0.1; records every request body and header. The caller closes `server`. */
export async function startFakeLlmServer(handler: FakeLlmHandler) {
  // any: request bodies are whatever the client sent.
  const requests: Array<{ url: string; auth?: string; body: any }> = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c) => (raw += String(c)));
    req.on('end', () => {
      const body = JSON.parse(raw);
      requests.push({ url: req.url ?? '', auth: req.headers.authorization, body });
      handler(body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
}

/** A handler answering every request with one chat completion of `content`. */
export const replyWith = (content: string): FakeLlmHandler => (_body, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
};
