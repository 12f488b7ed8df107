import { UsageError } from '../errors.js';
import { createBudgetContextProvider, type BudgetContextProviderOptions } from './budget-provider.js';
import { createInMemoryContextProvider, type InMemoryContextProviderOptions } from './memory-provider.js';
import type { ContextProvider } from './ports.js';

/** Config of the composition root: which adapter, and that adapter's options. */
export type ContextProviderConfig =
  | ({ adapter: 'budget' } & BudgetContextProviderOptions)
  | ({ adapter: 'memory' } & InMemoryContextProviderOptions);

export type ContextAdapterName = ContextProviderConfig['adapter'];

type AdapterFactories = { [K in ContextAdapterName]: (config: Extract<ContextProviderConfig, { adapter: K }>) => ContextProvider };

/** The strategies, by name: adding a backend is one entry here and one adapter file. */
export const CONTEXT_ADAPTERS: AdapterFactories = {
  budget: (config) => createBudgetContextProvider(config),
  memory: (config) => createInMemoryContextProvider(config),
};

/**
 * Choose and build the adapter named by `config.adapter` (spec Q4: a factory in the composition
 * root, constructor injection into the consumer). An unknown name is a UsageError.
 */
export function createContextProvider(config: ContextProviderConfig): ContextProvider {
  const name: string = config.adapter;
  if (!Object.hasOwn(CONTEXT_ADAPTERS, name)) {
    throw new UsageError(`unknown context adapter "${name}": use one of ${Object.keys(CONTEXT_ADAPTERS).sort().join(', ')}`);
  }
  // The union narrows per key only inside the map; the hasOwn check above makes this lookup sound.
  const build = CONTEXT_ADAPTERS[config.adapter] as (c: ContextProviderConfig) => ContextProvider;
  return build(config);
}
