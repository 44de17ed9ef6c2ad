// Writes schemas/<name>.schema.json, the JSON Schemas of config.yaml and the metadata files, from the built
// generator (dist/project/validate/json-schema.js): run by `npm run schemas` after a change to the shape definitions
// (src/project/validate/shapes*.ts); test/unit/json-schema.test.ts fails while the committed files differ.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { schemaFiles } from '../dist/project/validate/json-schema.js';

const dir = fileURLToPath(new URL('../schemas/', import.meta.url));
mkdirSync(dir, { recursive: true });
const files = schemaFiles();
for (const name of readdirSync(dir)) if (name.endsWith('.schema.json') && !files.has(name)) rmSync(`${dir}${name}`);
for (const [name, text] of files) writeFileSync(`${dir}${name}`, text);
console.log(`wrote ${files.size} schemas to schemas/`);
