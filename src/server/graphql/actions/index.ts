export { ACTION_MAX_RESPONSE_BYTES, callAction, forwardedHeaders, type ActionRequest } from './call.js';
export { actionInput, checkActionCombination, checkAnswer, outputRelationships, shapeAnswer, storedInputText } from './output.js';
export { addRelationships, checkNested, checkRelationships, shapeInDatabase } from './relationships.js';
export { asyncStatement, asyncTargets, requestHeadersJson, type AsyncTarget } from './async.js';
export { runActions, type ActionRoot, type ActionRun } from './run.js';
export { joinRemoteTables, type RemoteTablesCall } from './remote-tables.js';
