import { useQuery } from "@tanstack/react-query";
import { useDataProvider, useLogoutIfAccessDenied } from "ra-core";
import { useEffect } from "react";

/**
 * A platform tool's data (`GET` its route), through the data provider so it carries the sign-in
 * and its refresh. `refetchInterval` polls (a running task); a 401 ends the sign-in as elsewhere.
 */
export function useToolData<T>(routePath: string | undefined, refetchInterval?: (data: T | undefined) => number | false) {
  const dataProvider = useDataProvider();
  const logoutIfAccessDenied = useLogoutIfAccessDenied();
  const query = useQuery<T, Error>({
    queryKey: ["admin-tool", routePath],
    queryFn: ({ signal }) => dataProvider.tool(routePath!, signal) as Promise<T>,
    enabled: routePath !== undefined,
    retry: false,
    refetchInterval: refetchInterval ? (current) => refetchInterval(current.state.data) : undefined,
  });
  useEffect(() => {
    if (query.error) void logoutIfAccessDenied(query.error);
  }, [query.error, logoutIfAccessDenied]);
  return query;
}
