import { jsonDiff } from './diff.js';
import type { CaseResult, Summary } from './runner.js';

/** Seconds with 3 decimals, as JUnit XML wants them. */
const seconds = (ms: number): string => (ms / 1000).toFixed(3);

/** One line per case: `✓ name (12 ms)`, with the file position of a failure. */
export function caseLine(r: CaseResult): string {
  const mark = r.status === 'passed' ? '✓' : r.status === 'failed' ? '✗' : '-';
  const where = r.status === 'passed' ? '' : ` ${r.file}:${r.line}`;
  return `${mark} ${r.name} (${Math.round(r.ms)} ms)${where}${r.status === 'skipped' ? ` skipped: ${r.reason ?? ''}` : ''}`;
}

/** What a failed case shows under its line: each unmet expectation with an expected (-) / actual (+) diff. */
export function failureDetails(r: CaseResult): string[] {
  const out: string[] = [];
  if (r.reason) out.push(`    ${r.reason}`);
  for (const m of r.mismatches) {
    out.push(`    ${m.message} (- expected, + actual):`);
    for (const l of jsonDiff(m.expected, m.actual)) out.push(`      ${l}`);
  }
  return out;
}

export function summaryLine(s: Summary): string {
  const parts = [`${s.passed} passed`, `${s.failed} failed`, ...(s.skipped > 0 ? [`${s.skipped} skipped`] : [])];
  return `${parts.join(', ')} of ${s.total} case(s) in ${(s.ms / 1000).toFixed(2)} s`;
}

function xml(text: string): string {
  // Characters XML 1.0 cannot carry at all are dropped; the rest escaped.
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The JUnit XML report: one testsuite per test file, one testcase per case (its classname the file). */
export function junitReport(results: CaseResult[], summary: Summary): string {
  const files = [...new Set(results.map((r) => r.file))];
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="engine test" tests="${summary.total}" failures="${summary.failed}" skipped="${summary.skipped}" time="${seconds(summary.ms)}">`];
  for (const file of files) {
    const rs = results.filter((r) => r.file === file);
    const time = rs.reduce((t, r) => t + r.ms, 0);
    lines.push(`  <testsuite name="${xml(file)}" tests="${rs.length}" failures="${rs.filter((r) => r.status === 'failed').length}" skipped="${rs.filter((r) => r.status === 'skipped').length}" time="${seconds(time)}">`);
    for (const r of rs) {
      const open = `    <testcase name="${xml(r.name)}" classname="${xml(file)}" file="${xml(file)}" line="${r.line}" time="${seconds(r.ms)}"`;
      if (r.status === 'passed') {
        lines.push(`${open}/>`);
        continue;
      }
      lines.push(`${open}>`);
      if (r.status === 'skipped') lines.push(`      <skipped message="${xml(r.reason ?? '')}"/>`);
      else {
        const message = r.reason ?? r.mismatches.map((m) => m.message).join('; ');
        lines.push(`      <failure message="${xml(message)}">${xml(failureDetails(r).join('\n'))}</failure>`);
      }
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}
