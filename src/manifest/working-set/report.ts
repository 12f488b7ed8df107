import { stringify } from 'yaml';
import type { AssemblyReport } from './assemble.js';

/**
 * The assembly report as the YAML block of spec 001 section 9 (`assembly_report:`), for
 * people reading stderr. `original_tokens` and `level` are shown only when they differ from
 * the plain case, so a whole file reads like the spec's example.
 */
export function formatAssemblyReport(report: AssemblyReport): string {
  const included = report.included.map((file) => ({
    path: file.path,
    role: file.role,
    tokens: file.tokens,
    truncated: file.truncated,
    ...(file.original_tokens !== file.tokens ? { original_tokens: file.original_tokens } : {}),
    ...(file.level !== 'full' ? { level: file.level } : {}),
  }));
  return stringify(
    {
      assembly_report: {
        budget: report.budget,
        tokenizer: report.tokenizer,
        included,
        excluded: report.excluded,
        warnings: report.warnings,
      },
    },
    { lineWidth: 0 },
  );
}
