import { termsFactKind } from '../scoring/bm25.js';
import { definitionsFactKind } from '../scoring/definitions.js';
import { importsFactKind } from '../scoring/import-graph/index.js';
import { mentionsFactKind } from '../scoring/signals/mention-density.js';
import type { FactKind } from './fact-kind.js';

/**
 * The fact kinds extracted from every file whose content the collect stage reads anyway (a new
 * or changed blob), so later runs find them all in the store. Adding a kind (a symbol index,
 * definitions) is adding a module with a pure extractor and a line here.
 */
export const DEFAULT_FACT_KINDS: ReadonlyArray<FactKind<unknown>> = [termsFactKind, mentionsFactKind, importsFactKind, definitionsFactKind];
