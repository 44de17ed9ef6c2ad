/**
 * End-to-end: help pages (issue 19 item 7). Every page, walked from `engine --help` through each "Commands:" list, shows
 * the global flags once under "Global options:" and has an "Examples:" section.
 */
import { describe, expect, it } from 'vitest';
import { cli, show, tempDir } from './cli-helpers.js';

const GLOBALS = ['--project', '--endpoint', '--admin-secret', '--envfile', '--no-color', '--log-level', '--output', '--timeout',
  '--insecure-skip-tls-verify', '--certificate-authority'];

/** The subcommand names of a help page's "Commands:" section (aliases after `|` dropped; `help` left out). */
function subcommands(page: string): string[] {
  const section = page.split(/\n(?=[A-Z][A-Za-z ]*:\n)/).find((s) => s.startsWith('Commands:')) ?? '';
  return section.split('\n').slice(1).map((l) => /^ {2}([a-z][a-z-]*)/.exec(l)?.[1]).filter((n): n is string => !!n && n !== 'help');
}

describe('help pages', () => {
  it('each shows the global flags once, under "Global options:", and an "Examples:" section', async () => {
    const cwd = await tempDir();
    const queue: string[][] = [[]];
    let pages = 0;
    while (queue.length > 0) {
      const path = queue.shift() as string[];
      const r = await cli([...path, '--help'], { cwd });
      expect(r.code, show(r)).toBe(0);
      const page = r.stdout;
      const name = ['engine', ...path].join(' ');
      expect(page.match(/^Examples:$/gm), name).toHaveLength(1);
      expect(page, name).toMatch(/\nExamples:\n( {2}\$ engine .+\n)+/);
      const leaf = subcommands(page).length === 0;
      if (leaf || path.length === 0) {
        expect(page.match(/^Global options:$/gm), name).toHaveLength(1);
        const [own, global] = page.split('\nGlobal options:\n') as [string, string];
        for (const flag of GLOBALS) {
          expect(global, `${name} ${flag}`).toContain(flag);
          expect(new RegExp(`(?:^|[ ,])${flag}(?![\\w-])`, 'm').test(own), `${name}: ${flag} only under Global options`).toBe(false);
        }
      }
      for (const sub of subcommands(page)) queue.push([...path, sub]);
      pages++;
    }
    expect(pages).toBeGreaterThan(25);
  });
});
