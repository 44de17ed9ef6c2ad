import type { YamlSource } from '../yaml-source.js';

/** The parsed YAML files of a metadata directory; a missing or empty file is undefined or has value undefined/null. */
export interface MetadataSources {
  version?: YamlSource;
  tables?: YamlSource;
  functions?: YamlSource;
  allowList?: YamlSource;
  remoteSchemas?: YamlSource;
  queryCollections?: YamlSource;
  cronTriggers?: YamlSource;
  inheritedRoles?: YamlSource;
  restEndpoints?: YamlSource;
  apiLimits?: YamlSource;
}
