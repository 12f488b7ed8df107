import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real `redis-server` (the Debian package; `.ci/run` installs it when missing) on a free
 * loopback port with its own temporary directory. No mock stands in for Redis.
 */
export interface RedisServer {
  url: string;
  port: number;
  dir: string;
  /** Stop the server (SIGTERM: with `persist`, it writes its append-only file first). */
  stop(): Promise<void>;
  /** Stop and start again on the same port and directory: clients must reconnect. */
  restart(): Promise<void>;
  /** Stop for good and remove the directory. */
  close(): Promise<void>;
}

export interface RedisServerOptions {
  /** Keep data across restart (append-only file, fsync always); none when absent. */
  persist?: boolean;
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'aiwg-redis-'));
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--protected-mode', 'yes', '--daemonize', 'no'];
  args.push(...(options.persist === true ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']));
  let child: ChildProcess | undefined = await launch(args);
  const stop = async () => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGTERM');
    });
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    stop,
    async restart() {
      await stop();
      child = await launch(args);
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Spawn and wait for "Ready to accept connections" on stdout (redis logs there by default). */
function launch(args: string[]): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('Ready to accept connections')) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.resume();
    child.once('error', (error) => reject(new Error(`cannot start redis-server (apt-get install -y redis-server): ${error.message}`)));
    child.once('exit', (code) => reject(new Error(`redis-server exited with code ${String(code)} before it was ready:\n${output}`)));
  });
}

/** A port nobody listens on right now (the OS picks it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
