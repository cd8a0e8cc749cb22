// Compiled (never run) against the types openapi-typescript generates from
// openapi/openapi.json into ./openapi-typescript/api.d.ts: the names an outsider writes.

import type { components, operations, paths } from "./openapi-typescript/api";

type Schemas = components["schemas"];

export const options: Schemas["VariantOptions"] = { scoring: "american", diagonals: true };
export const variant: Schemas["VariantId"] = "poker-squares";
export type DealAnswer =
  operations["createDeal"]["responses"][201]["content"]["application/json"];
export const dealOptions = (deal: DealAnswer): Schemas["VariantOptions"] | undefined =>
  deal.options;
export type WrongIndex = NonNullable<Schemas["Problem"]["next_index"]>;
export type Moves = paths["/v1/deals/{deal_id}/moves"]["post"];
