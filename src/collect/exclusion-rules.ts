/**
 * Why a file is not a candidate. Two registries of uniform rules: path rules decide from the
 * root-relative path alone (no I/O, so excluded files are never read), content rules look at
 * the bytes once they are read. Each returns a reason, or undefined to let the file through.
 * Adding a rule is adding an entry here.
 */

export interface RuleOptions {
  includeSecrets: boolean;
}

export interface PathRule {
  name: string;
  test(path: string, basename: string, options: RuleOptions): string | undefined;
}

export interface ContentRule {
  name: string;
  test(input: ContentInput, options: RuleOptions): string | undefined;
}

export interface ContentInput {
  path: string;
  basename: string;
  bytes: Buffer;
  /** Lines in the file (the last one may lack its newline). */
  lineCount: number;
  /** The decoded text, computed on first use. */
  text: () => string;
}

/** Directory names whose contents are never context, with the reason recorded. */
export const EXCLUDED_DIRS: ReadonlyMap<string, string> = new Map([
  ['node_modules', 'dependency directory'],
  ['bower_components', 'dependency directory'],
  ['jspm_packages', 'dependency directory'],
  ['.venv', 'dependency directory'],
  ['vendor', 'vendored code'],
  ['third_party', 'vendored code'],
  ['third-party', 'vendored code'],
  ['dist', 'build output'],
  ['build', 'build output'],
  ['.next', 'build output'],
  ['.nuxt', 'build output'],
  ['__pycache__', 'build output'],
  ['.git', 'git metadata'],
]);

const LOCKFILES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lock',
  'bun.lockb',
  'deno.lock',
  'Cargo.lock',
  'poetry.lock',
  'Pipfile.lock',
  'uv.lock',
  'pdm.lock',
  'go.sum',
  'Gemfile.lock',
  'composer.lock',
  'mix.lock',
  'flake.lock',
  'Podfile.lock',
  'pubspec.lock',
  'packages.lock.json',
  'gradle.lockfile',
  '.terraform.lock.hcl',
]);

const BINARY_EXTENSIONS = new Set(
  (
    'png jpg jpeg gif bmp ico webp avif tif tiff psd pdf zip gz tgz bz2 xz 7z rar zst jar war ear class ' +
    'so dylib dll exe o a lib obj wasm woff woff2 ttf otf eot mp3 mp4 wav ogg flac mov avi webm mkv ' +
    'sqlite sqlite3 db pyc pyo node bin dat npy npz onnx pt safetensors parquet'
  ).split(' '),
);

const SECRET_EXTENSIONS = new Set(['pem', 'key', 'p12', 'pfx', 'jks', 'keystore', 'ppk', 'tfvars', 'kubeconfig']);
/** Files that are credentials by nature, by base name. */
const SECRET_NAMES = new Set([
  'credentials.json',
  '.netrc',
  '_netrc',
  '.git-credentials',
  '.htpasswd',
  '.envrc',
  '.pgpass',
  'kubeconfig',
  '.s3cfg',
  '.boto',
  '.vault-token',
  'terraform.tfstate',
  'terraform.tfstate.backup',
]);
/** Credentials by their place: the tail of the root-relative path. */
const SECRET_PATHS = ['.docker/config.json', '.aws/credentials', '.aws/config', '.kube/config', '.config/gcloud/credentials.db'];
/** Templates that document variables without values: useful context, not secrets. */
const ENV_TEMPLATES = new Set(['.env.example', '.env.sample', '.env.template']);
const TEMPLATE_SUFFIX = /\.(example|sample|template|dist)$/;
const SSH_KEY = /^id_(rsa|dsa|ecdsa|ed25519)/;
const SECRET_HINT = 'set collect.include_secrets: true to include it';

/** A text line of this average length is not written by a person. */
const MAX_AVERAGE_LINE_CHARS = 300;
/** Below this size a long line is a short data file, not a bundle. */
const MINIFIED_MIN_BYTES = 4096;
const GENERATED_NAME = /\.min\.(js|mjs|cjs|css)$|\.map$|\.pb\.go$|_pb2(_grpc)?\.py$/;
/** Markers tools put at the top of generated files (`@generated`, Go's "Code generated ... DO NOT EDIT"). */
const GENERATED_MARKER = /@generated\b|^\W*Code generated .* DO NOT EDIT/m;
/**
 * A PEM private key: the BEGIN line, optional RFC 1421 headers (encrypted keys), then base64.
 * Requiring the base64 body keeps code that only names the marker (crypto libraries) in.
 */
const PRIVATE_KEY_BLOCK = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----\r?\n(?:[A-Za-z-]+: [^\n]*\r?\n)*\r?\n?[A-Za-z0-9+/=]{40,}/;
const REGISTRY_TOKEN = /(_authToken|_auth|_password|npmAuthToken)\s*[=:]|^\s*password\s*[=:]/im;
const BINARY_SNIFF_BYTES = 8000;

function extension(basename: string): string {
  const dot = basename.lastIndexOf('.');
  return dot <= 0 ? '' : basename.slice(dot + 1).toLowerCase();
}

export const PATH_RULES: readonly PathRule[] = [
  {
    name: 'lockfile',
    test: (_path, basename) => (LOCKFILES.has(basename) ? 'lockfile' : undefined),
  },
  {
    name: 'secret-name',
    test: (path, basename, options) => (options.includeSecrets ? undefined : credentialFileReason(path, basename)),
  },
  {
    name: 'generated-name',
    test: (_path, basename) => {
      const match = GENERATED_NAME.exec(basename);
      return match ? `generated or minified file (*${match[0]})` : undefined;
    },
  },
  {
    name: 'binary-extension',
    test: (_path, basename) => {
      const ext = extension(basename);
      return BINARY_EXTENSIONS.has(ext) ? `binary file (.${ext})` : undefined;
    },
  },
];

export const CONTENT_RULES: readonly ContentRule[] = [
  {
    name: 'binary',
    test: ({ bytes }) => (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0) ? 'binary file (NUL byte in the first 8 KB)' : undefined),
  },
  {
    name: 'secret-content',
    test: ({ path, basename, bytes, text }, options) => {
      if (options.includeSecrets) return undefined;
      // Cheap byte search first: almost no file contains a marker.
      const suspect = bytes.includes('PRIVATE KEY') || basename === '.npmrc' || basename === '.pypirc' || basename === '.yarnrc.yml';
      return suspect ? credentialContentReason(path, text()) : undefined;
    },
  },
  {
    name: 'generated-content',
    test: ({ bytes, lineCount }) => {
      const head = bytes.subarray(0, 1024).toString('utf8').split('\n', 3).join('\n');
      if (GENERATED_MARKER.test(head)) return 'generated file (marker in its first lines)';
      if (bytes.length < MINIFIED_MIN_BYTES) return undefined;
      const average = Math.round(bytes.length / Math.max(1, lineCount));
      return average > MAX_AVERAGE_LINE_CHARS ? `generated or minified: average line length ${average} chars` : undefined;
    },
  },
];

/**
 * Why a file is a credential by its name or place (`.env`, `id_rsa`, `*.pem`, `.envrc`,
 * `.pgpass`, `terraform.tfvars`, `.docker/config.json`, `.aws/credentials`, kubeconfig), or
 * undefined. Every reader calls this (collect, working-set assembly and `add`, summarize), so
 * such a file never reaches any output unless `collect.include_secrets` is set.
 */
export function credentialFileReason(path: string, basename = path.slice(path.lastIndexOf('/') + 1)): string | undefined {
  if (basename === '.env' || (basename.startsWith('.env.') && !ENV_TEMPLATES.has(basename)))
    return `secret: environment file; ${SECRET_HINT}`;
  const reason = credentialNameReason(path, basename);
  // a template documents variables without values: never a secret (asked only of the few names that look like one)
  return reason === undefined || TEMPLATE_SUFFIX.test(basename) ? undefined : reason;
}

/** SECRET_PATHS with a leading slash: a path ends with one, or is the tail itself. */
const SLASHED_SECRET_PATHS = SECRET_PATHS.map((tail) => `/${tail}`);

function credentialNameReason(path: string, basename: string): string | undefined {
  const ext = extension(basename);
  if (SECRET_EXTENSIONS.has(ext)) return `secret: key, certificate or credentials file (*.${ext}); ${SECRET_HINT}`;
  if (SSH_KEY.test(basename) && !basename.endsWith('.pub')) return `secret: SSH key; ${SECRET_HINT}`;
  if (SECRET_NAMES.has(basename)) return `secret: credentials file (${basename}); ${SECRET_HINT}`;
  const place = SECRET_PATHS.find((tail, i) => path === tail || path.endsWith(SLASHED_SECRET_PATHS[i]!));
  if (place) return `secret: credentials file (${place}); ${SECRET_HINT}`;
  return undefined;
}

/** Why a file's content makes it a credential file (a private key block, a registry token in .npmrc), or undefined. */
export function credentialContentReason(path: string, text: string): string | undefined {
  const basename = path.slice(path.lastIndexOf('/') + 1);
  if ((basename === '.npmrc' || basename === '.pypirc' || basename === '.yarnrc.yml') && REGISTRY_TOKEN.test(text))
    return `secret: ${basename} with credentials; ${SECRET_HINT}`;
  if (text.includes('PRIVATE KEY') && PRIVATE_KEY_BLOCK.test(text)) return `secret: contains a private key block; ${SECRET_HINT}`;
  return undefined;
}

/** The first path rule that rejects the file, if any. */
export function pathExclusion(path: string, options: RuleOptions): string | undefined {
  const basename = path.slice(path.lastIndexOf('/') + 1);
  for (const rule of PATH_RULES) {
    const reason = rule.test(path, basename, options);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

/** Base names of SECRET_PATHS' files: only a file of one of these names is judged by its whole path. */
const SECRET_PATH_NAMES = new Set(SECRET_PATHS.map((tail) => tail.slice(tail.lastIndexOf('/') + 1)));

/**
 * pathExclusion for the many paths of one listing. Every path rule but the credential places
 * (SECRET_PATHS) looks at the base name alone, and a repository's files share few names (babel:
 * 27,674 files, 1,185 names), so the verdict is remembered per name; a file named like one of
 * those places is judged by its whole path each time.
 */
export function createPathExclusion(options: RuleOptions): (path: string) => string | undefined {
  const byName = new Map<string, string | undefined>();
  return (path) => {
    const basename = path.slice(path.lastIndexOf('/') + 1);
    if (SECRET_PATH_NAMES.has(basename)) return pathExclusion(path, options);
    if (byName.has(basename)) return byName.get(basename);
    const reason = pathExclusion(path, options);
    byName.set(basename, reason);
    return reason;
  };
}

/** The first content rule that rejects the file, if any. */
export function contentExclusion(input: Omit<ContentInput, 'basename'>, options: RuleOptions): string | undefined {
  const withName = { ...input, basename: input.path.slice(input.path.lastIndexOf('/') + 1) };
  for (const rule of CONTENT_RULES) {
    const reason = rule.test(withName, options);
    if (reason !== undefined) return reason;
  }
  return undefined;
}
