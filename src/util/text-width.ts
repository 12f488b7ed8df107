import stringWidth from 'string-width';

/**
 * Padding by display width (terminal columns), not UTF-16 length: CJK and other wide characters
 * take two columns, combining marks none, ANSI colour codes none, so table borders stay aligned.
 */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

export function padEndDisplay(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - stringWidth(text)));
}

export function padStartDisplay(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - stringWidth(text))) + text;
}
