import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/**
 * Fake credentials, each built by concatenation so no source file of this repository holds
 * one whole, and the files of a repository that carries them the way real projects do: pasted
 * into code and config, and as whole credential files. `SECRET_VALUES` is what must never
 * appear in any output.
 */
export const SECRETS = {
  awsSecret: 'Zm9vYmFyYmF6cXV4' + 'Zm9vYmFyYmF6cXV4Zm9vYmFy',
  awsKeyId: 'AKIA' + 'QWERTYUIOPASDFGH',
  kubeToken: 'kube' + 'TokenAbCdEfGhIjKlMnOpQrStUv0123456789',
  kubeClientKey: 'LS0tLS1CRUdJTiBSU0Eg' + 'UFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVB',
  keyBody: 'MIIEowIBAAKCAQEA2a2rwplBQLF29amygykEMmYz0' + 'Kcj3bKBp29P2rFj7z8Zh3vQ',
  keyBody2: 'x9Yk3Xn3f0R5s0Yb3rQ9xN5yZb3c0f8lQk9fD1r3' + 'T2bWcD8aZ8vYp1K2s3d4f5g6',
  pgPassword: 'PgPass' + 'w0rd991',
  mongoPassword: 'Mongo' + 'Pass77xq',
  redisPassword: 'Redis' + 'Pass31zz',
  jwt: 'eyJhbGciOiJIUzI1NiJ9' + '.eyJzdWIiOiIxMjM0NTY3ODkwIn0' + '.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  slackHook: 'B0A1B2C3D/' + 'abcdefghijklmnopqrstuvwx',
  stripeTest: 'sk_test_' + '4eC39HqLyjWDarjtT1zdp7dc',
  password: 'correct-' + 'horse-battery-staple',
  envPassword: 'Super' + 'Secret99env',
  github: 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
  envFile: 'envfile-' + 'secret-value-123',
  pgpass: 'pgpass-' + 'secret-9q',
  envrc: 'envrc-' + 'secret-7q',
  tfvars: 'tfvars-' + 'secret-5q',
  dockerAuth: 'ZG9ja2VyOmRvY2tlci1z' + 'ZWNyZXQtdmFsdWU=',
  awsCredentialsFile: 'awscredfile' + 'Zm9vYmFyYmF6cXV4Zm9vYmFy0',
  npmToken: 'npm_' + 'abcdefghijklmnopqrstuvwxyz0123456789',
  sshKey: 'b3BlbnNzaC1rZXktdjEAAAAA' + 'BG5vbmUAAAAEbm9uZQAAAAAAAAAB',
} as const;

export const SECRET_VALUES: readonly string[] = Object.values(SECRETS);

const pemBlock = (indent: string, kind = 'RSA PRIVATE KEY') =>
  [`-----BEGIN ${kind}-----`, SECRETS.keyBody, SECRETS.keyBody2, `-----END ${kind}-----`].map((l) => `${indent}${l}`).join('\n');

/** Ordinary files that carry pasted credentials: they stay candidates, their secrets are redacted. */
export const FILES_WITH_SECRETS: Record<string, string> = {
  'src/aws-client.ts': `// token refresh for the storage client\nexport const credentials = {\n  accessKeyId: '${SECRETS.awsKeyId}',\n  secretAccessKey: '${SECRETS.awsSecret}',\n};\n`,
  'src/db.ts': `// database token refresh and connection\nexport const PRIMARY = 'postgres://app:${SECRETS.pgPassword}@db.internal:5432/app';\nexport const DOCS = 'mongodb+srv://admin:${SECRETS.mongoPassword}@cluster0.example.net/docs';\nexport const CACHE = 'redis://:${SECRETS.redisPassword}@cache:6379/0';\n`,
  'src/auth.ts': `// token refresh for the session\nexport const SERVICE_TOKEN = '${SECRETS.jwt}';\nexport function refresh(token: string): string {\n  return token;\n}\n`,
  'src/notify.ts': `// token refresh alerts go to slack\nexport const WEBHOOK = 'https://hooks.slack.com/services/T0A1B2C3D/${SECRETS.slackHook}';\n`,
  'src/billing.ts': `// billing token refresh\nexport const STRIPE_KEY = '${SECRETS.stripeTest}';\nexport const GITHUB = '${SECRETS.github}';\n`,
  'src/settings.py': `# token refresh settings\nDATABASE_USER = "app"\npassword = "${SECRETS.password}"\n`,
  'config/app.env.yaml': `# token refresh service\nenv:\n  DB_PASSWORD: ${SECRETS.envPassword}\n`,
  'config/service-account.json': `{"type": "service_account", "project_id": "token-refresh", "private_key": "${pemBlock('', 'PRIVATE KEY').split('\n').join('\\n')}\\n", "client_email": "svc@example.iam.gserviceaccount.com"}\n`,
  'deploy/cluster.yaml': `# token refresh cluster access\napiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    token: ${SECRETS.kubeToken}\n    client-key-data: ${SECRETS.kubeClientKey}\n`,
  'deploy/tls.yaml': `# token refresh tls\ntls:\n  key: |\n${pemBlock('    ')}\n`,
  'src/keys.ts': `// token refresh signing key\nexport const KEY = \`\n${pemBlock('  ')}\`;\n`,
};

/** Files that are credentials by name or place: never read into any output. */
export const CREDENTIAL_FILES: Record<string, string> = {
  '.env': `API_TOKEN=${SECRETS.envFile}\n`,
  '.envrc': `export DB_TOKEN=${SECRETS.envrc}\n`,
  '.pgpass': `db:5432:app:app:${SECRETS.pgpass}\n`,
  'terraform.tfvars': `db_token = "${SECRETS.tfvars}"\n`,
  '.docker/config.json': `{"auths": {"registry.example.com": {"auth": "${SECRETS.dockerAuth}"}}}\n`,
  '.aws/credentials': `[default]\naws_access_key_id = ${SECRETS.awsKeyId}\naws_secret_access_key = ${SECRETS.awsCredentialsFile}\n`,
  kubeconfig: `users:\n- name: a\n  user:\n    token: ${SECRETS.kubeToken}\n`,
  '.ssh/id_rsa': `-----BEGIN OPENSSH PRIVATE KEY-----\n${SECRETS.sshKey}\n-----END OPENSSH PRIVATE KEY-----\n`,
  '.npmrc': `//registry.npmjs.org/:_authToken=${SECRETS.npmToken}\n`,
};

/** Plain files so the repository has something to choose from. */
export const PLAIN_FILES: Record<string, string> = {
  'src/refresh.ts': `/** Token refresh: renews access tokens before they expire. */\nexport function refreshToken(now: number, expiresAt: number): boolean {\n  return expiresAt - now < 60_000;\n}\n`,
  'README.md': '# Token service\n\nRefreshes access tokens.\n',
};

/** Write the whole fixture into `root`. */
export function plantSecretRepo(root: string): void {
  for (const [path, content] of Object.entries({ ...PLAIN_FILES, ...FILES_WITH_SECRETS, ...CREDENTIAL_FILES })) writeFixtureFile(root, path, content);
}

export function writeFixtureFile(root: string, path: string, content: string | Buffer): void {
  const abs = join(root, path);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, content);
}

/** sha256 of every regular file under `dir` (symlinks and special files by their kind), POSIX paths. */
export function snapshotTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (abs: string) => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const path = join(abs, entry.name);
      const rel = relative(dir, path).split(sep).join('/');
      if (entry.name === '.git') continue;
      const info = lstatSync(path);
      if (info.isSymbolicLink()) out.set(rel, 'symlink');
      else if (info.isDirectory()) walk(path);
      else if (info.isFile()) out.set(rel, createHash('sha256').update(readFileSync(path)).digest('hex'));
      else out.set(rel, 'special');
    }
  };
  walk(dir);
  return out;
}

/** Files added or changed between two snapshots, and user files removed or changed. */
export function diffTrees(before: Map<string, string>, after: Map<string, string>): { written: string[]; changed: string[]; removed: string[] } {
  const written: string[] = [];
  const changed: string[] = [];
  for (const [path, hash] of after) {
    const was = before.get(path);
    if (was === undefined) written.push(path);
    else if (was !== hash) {
      written.push(path);
      changed.push(path);
    }
  }
  const removed = [...before.keys()].filter((path) => !after.has(path));
  return { written, changed, removed };
}

/** The fake secrets that occur in `text`. */
export function leakedSecrets(text: string): string[] {
  return SECRET_VALUES.filter((value) => text.includes(value));
}
