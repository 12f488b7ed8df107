import { ecmascriptLanguage } from './typescript.js';

/** The javascript grammar also parses JSX. */
export const javascriptLanguage = ecmascriptLanguage('javascript', 'JavaScript', 'javascript', ['.js', '.mjs', '.cjs', '.jsx']);
