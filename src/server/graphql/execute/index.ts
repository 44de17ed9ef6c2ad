export { confirmVersion, executeQuery, StaleSchema, type VersionGuard } from './run.js';
