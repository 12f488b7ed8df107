import type { RenderFormat } from '../../stages.js';
import { UsageError } from '../../errors.js';
import type { OutputFormat } from './format.js';
import { xmlFormat } from './xml.js';
import { markdownFormat } from './markdown.js';
import { jsonFormat } from './json.js';

export type { OutputFormat, FileBlockInput, MessageBlockInput, RenderedSection } from './format.js';

/** The output formats by id. Adding one is adding a file and a line here. */
export const OUTPUT_FORMATS: Readonly<Record<RenderFormat, OutputFormat>> = {
  xml: xmlFormat,
  markdown: markdownFormat,
  json: jsonFormat,
};

export function getOutputFormat(id: RenderFormat): OutputFormat {
  const format = (OUTPUT_FORMATS as Record<string, OutputFormat | undefined>)[id];
  if (!format) throw new UsageError(`format "${String(id)}" is not known: use one of ${Object.keys(OUTPUT_FORMATS).join(', ')}`);
  return format;
}
