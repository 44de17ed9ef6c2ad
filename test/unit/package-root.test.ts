import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/package-root.js';
import { VERSION } from '../../src/version.js';

describe('the package root', () => {
  it('is the directory of our package.json, whose version the CLI reports', () => {
    const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
    expect(pkg.name).toBe('engine');
    expect(VERSION).toBe(pkg.version);
    expect(existsSync(join(PACKAGE_ROOT, 'templates', 'action.graphql'))).toBe(true);
  });
});
