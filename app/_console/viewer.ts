import { createContext, useContext } from 'react';
import { graphql, type ResultOf } from './graphql';

export const ViewerQuery = graphql(`
  query Viewer {
    me {
      sessionId
      sessionExpiresAt
      allowedMutations
      operator {
        id
        email
        role
      }
    }
  }
`);

export type Viewer = ResultOf<typeof ViewerQuery>['me'];

export const ViewerContext = createContext<Viewer | undefined>(undefined);

/** The signed-in operator; pages inside the console frame always have one. */
export function useViewer(): Viewer {
  const viewer = useContext(ViewerContext);
  if (!viewer) throw new Error('useViewer outside the console frame');
  return viewer;
}

/** Whether the signed-in role may call `mutation`: controls it may not use are not shown at all. */
export function useMay(mutation: string): boolean {
  return useViewer().allowedMutations.includes(mutation);
}
