import { useLogout } from "ra-core";

export function SignOutButton() {
  const logout = useLogout();
  return (
    <button type="button" className="button-secondary" onClick={() => logout()}>
      Sign out
    </button>
  );
}
