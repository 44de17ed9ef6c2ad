// `npm run bench`: every benchmark, one after the other, printing figures and their ratio to the goal.
import { run as replaceExport } from './replace-export.mjs';
import { run as singleChange } from './single-change.mjs';
import { run as project } from './project.mjs';

console.log('# replace/export (issue 2)');
await replaceExport();
console.log('# one change at 100 and 1,000 tables (issue 3)');
await singleChange();
console.log('# project tool (issue 4)');
await project();
