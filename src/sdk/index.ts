// gatehouse/sdk: the typed client of the /v1 API (docs/sdk.md).
export type { BrowserSession } from './browser-session.js';
export { createGatehouse, type Gatehouse, type GatehouseOptions, type Tokens } from './client.js';
export type { ItemOf, ListPath, ListQuery } from './paging.js';
export { type FieldError, GatehouseProblem, problemOf } from './problem.js';
export type { components, paths } from './schema.js';
