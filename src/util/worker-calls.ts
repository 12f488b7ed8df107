import type { Worker } from 'node:worker_threads';

/** The worker stopped (it failed or exited): not an answer. Callers go on without it. */
export class WorkerGone extends Error {}

export interface WorkerCalls<Request, Answer> {
  /** Post `request` with a fresh id; the worker answers `{ id, ... }`. Rejects with WorkerGone once the worker has stopped. */
  call(request: Request): Promise<Answer>;
}

/**
 * Calls to a worker thread answered by id on its own port. The worker keeps the process alive
 * only while a call waits on it (unref'd otherwise, so a one-shot command exits when done), and
 * every waiting call rejects with WorkerGone when it stops. `name` says which thread in that error.
 */
export function workerCalls<Request extends object, Answer extends { id: number }>(worker: Worker, name: string): WorkerCalls<Request, Answer> {
  const waiting = new Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let gone: string | undefined;
  worker.on('message', (answer: Answer) => {
    const call = waiting.get(answer.id);
    if (!call) return;
    waiting.delete(answer.id);
    if (waiting.size === 0) worker.unref();
    call.resolve(answer);
  });
  const stop = (why: string) => {
    gone ??= why;
    for (const call of waiting.values()) call.reject(new WorkerGone(gone));
    waiting.clear();
  };
  worker.on('error', (error) => stop(`the ${name} thread failed (${error.message})`));
  worker.on('exit', (code) => stop(`the ${name} thread stopped (exit ${code})`));
  // after the listeners: adding a 'message' listener refs the worker's port again
  worker.unref();
  return {
    call(request) {
      if (gone !== undefined) return Promise.reject(new WorkerGone(gone));
      const id = nextId++;
      return new Promise<Answer>((resolve, reject) => {
        if (waiting.size === 0) worker.ref();
        waiting.set(id, { resolve, reject });
        worker.postMessage({ ...request, id });
      });
    },
  };
}
