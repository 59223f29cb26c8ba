// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- postman-collection ships its types without naming them in its package.json
/// <reference path="../../node_modules/postman-collection/types/index.d.ts" />
import { ItemGroup, type Collection, type Item, type RequestAuth, type Variable } from 'postman-collection';

export interface CollectionRequest {
  method: string;
  /** The OpenAPI path it calls: Postman's `:id` segments as `{id}`. */
  path: string;
  item: Item;
}

/** Every request of the collection, in its folders. */
export function collectionRequests(collection: Collection): CollectionRequest[] {
  return itemsOf(collection).map((item) => {
    const segments: string[] = item.request.url.path ?? [];
    const path = '/' + segments.map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s)).join('/');
    return { method: item.request.method.toUpperCase(), path, item };
  });
}

/** The requests of a group and of the groups in it (the SDK's forEachItem, which its types leave out). */
export function itemsOf(group: ItemGroup): Item[] {
  return (group.items.all() as (Item | ItemGroup)[]).flatMap((child) =>
    ItemGroup.isItemGroup(child) ? itemsOf(child as ItemGroup) : [child as Item],
  );
}

/** An auth's type (`apikey`, `noauth`), which the SDK's types leave out. */
export function authType(auth: RequestAuth | undefined): string | undefined {
  return (auth?.toJSON() as { type?: string } | undefined)?.type;
}

/**
 * The item's URL with `{{variables}}` filled in from `values`, then from the collection's own, and its path
 * variables (`:id`) set from `pathValues` (else their placeholder, as Postman would send it).
 */
export function resolvedUrl(
  collection: Collection,
  item: Item,
  values: Record<string, string>,
  pathValues: Record<string, string> = {},
): URL {
  for (const [name, value] of Object.entries(pathValues)) (item.request.url.variables.one(name) as Variable).set(value);
  const own = collection.variables.toObject() as Record<string, string>;
  return new URL(fill(item.request.url.toString(), { ...own, ...values }));
}

/** `{{name}}` replaced by its value; an unknown name stays, so that a test sees it. */
export function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => values[name] ?? whole);
}
