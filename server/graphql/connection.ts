import { ArgsType, Field, Int, ObjectType, type ClassType } from 'type-graphql';
import { ValidationError } from '@/server/errors';

@ObjectType('PageInfo')
export class PageInfo {
  @Field(() => Boolean)
  hasNextPage!: boolean;

  @Field(() => String, { nullable: true, description: 'Pass as `after` for the next page.' })
  endCursor!: string | null;
}

@ArgsType()
export class PageArgs {
  @Field(() => Int, { defaultValue: 25, description: '1 to 100.' })
  first!: number;

  @Field(() => String, { nullable: true, description: "The previous page's endCursor." })
  after?: string | null;
}

export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  nodes: T[];
  pageInfo: PageInfo;
}

/**
 * A Relay connection type for `node`, named `<Name>Connection` with `<Name>Edge`s. Names are given,
 * never taken from classes: Next's minifier renames classes.
 */
export function connectionOf<T extends object>(node: ClassType<T>, name: string): ClassType<Connection<T>> {
  @ObjectType(`${name}Edge`)
  class Edge {
    @Field(() => String)
    cursor!: string;

    @Field(() => node)
    node!: T;
  }

  @ObjectType(`${name}Connection`)
  class ConnectionType {
    @Field(() => [Edge])
    edges!: Edge[];

    @Field(() => [node], { description: 'The nodes of `edges`, for when cursors are not needed.' })
    nodes!: T[];

    @Field(() => PageInfo)
    pageInfo!: PageInfo;
  }
  return ConnectionType;
}

/** A page's rows (fetched with one extra to learn whether more follow) as a connection. */
export function toConnection<T>(rows: T[], first: number, keyOf: (row: T) => string): Connection<T> {
  const page = rows.slice(0, first);
  const edges = page.map((node) => ({ cursor: encodeCursor(keyOf(node)), node }));
  return { edges, nodes: page, pageInfo: { hasNextPage: rows.length > first, endCursor: edges.at(-1)?.cursor ?? null } };
}

/** `first` and the decoded `after` key, checked: 400-style errors naming the argument. */
export function pageOf(args: PageArgs): { first: number; after?: string } {
  if (!Number.isInteger(args.first) || args.first < 1 || args.first > 100) {
    throw new ValidationError([{ param: 'first', code: 'parameter_invalid', message: 'first must be between 1 and 100.' }]);
  }
  return { first: args.first, after: args.after ? decodeCursor(args.after) : undefined };
}

export function encodeCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  if (cursor.length > 200 || !/^[\w:.-]+$/.test(key)) {
    throw new ValidationError([{ param: 'after', code: 'parameter_invalid', message: 'after is not a cursor this API returned.' }]);
  }
  return key;
}
