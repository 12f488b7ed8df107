/**
 * The fenced code block right after `<!-- runnable: NAME -->` in a markdown document: the
 * examples docs promise are runnable are run by tests, taken from the docs themselves.
 */
export function runnableBlock(markdown: string, name: string): string {
  const match = new RegExp(`<!-- runnable: ${name} -->\\n\`\`\`\\w*\\n([\\s\\S]*?)\\n\`\`\``).exec(markdown);
  if (!match?.[1]) throw new Error(`no code block marked <!-- runnable: ${name} -->`);
  return match[1];
}
