import { ecmascriptLanguage } from './typescript.js';

export const tsxLanguage = ecmascriptLanguage('tsx', 'TypeScript (TSX)', 'tsx', ['.tsx']);
