/** Bodies nested deeper than this are refused before parsing: request bodies and handlers' answers (issue 28). */
export const MAX_JSON_NESTING = 512;

/** Depth of JSON nesting, measured before parsing so that hostile input cannot exhaust the stack. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      depth++;
      if (depth > max) max = depth;
    } else if (c === 93 || c === 125) depth--;
  }
  return max;
}
