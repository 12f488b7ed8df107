/**
 * One error base class for the whole engine. `exitCode` follows the CLI contract:
 * 1 = the result failed (e.g. overflow strategy `error`), 2 = usage, config or input error.
 * Library code throws these; only the CLI turns them into exit codes.
 */
export class AiwgError extends Error {
  readonly code: string;
  readonly exitCode: 1 | 2;

  constructor(code: string, message: string, options: { exitCode?: 1 | 2; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AiwgError';
    this.code = code;
    this.exitCode = options.exitCode ?? 2;
  }
}

/** Bad flags, arguments or task text. */
export class UsageError extends AiwgError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('E_USAGE', message, { exitCode: 2, ...options });
    this.name = 'UsageError';
  }
}

/** A config file, environment variable or manifest that does not validate. */
export class ConfigError extends AiwgError {
  /** Dotted key path that failed, e.g. `budget_config.total_budget.max_tokens`. */
  readonly keyPath: string;

  constructor(keyPath: string, message: string, options: { cause?: unknown; file?: string } = {}) {
    const where = options.file ? `${options.file}: ` : '';
    super('E_CONFIG', `${where}${keyPath ? `${keyPath}: ` : ''}${message}`, { exitCode: 2, cause: options.cause });
    this.name = 'ConfigError';
    this.keyPath = keyPath;
  }
}

/** Input files or paths that cannot be used (missing root, path escaping the root, ...). */
export class InputError extends AiwgError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('E_INPUT', message, { exitCode: 2, ...options });
    this.name = 'InputError';
  }
}

/** The run completed but its result is a failure, e.g. overflow strategy `error`. */
export class BudgetExceededError extends AiwgError {
  constructor(message: string) {
    super('E_BUDGET', message, { exitCode: 1 });
    this.name = 'BudgetExceededError';
  }
}

export function isAiwgError(error: unknown): error is AiwgError {
  return error instanceof AiwgError;
}
