// `npm run bench`: every benchmark, one after the other, printing figures and their ratio to the goal.
import { run as replaceExport } from './replace-export.mjs';

console.log('# replace/export (issue 2)');
await replaceExport();
