import { Link, useRouteLoaderData } from "react-router";
import { BellIcon } from "../../ui/icons.js";

/** What the root and the notifications page tell the bell. */
interface BellData {
  unread?: number | undefined;
}

/**
 * The header's bell with the unread count. On the notifications page its own count wins: that
 * page marks what it shows read while the root's count is being read alongside it.
 */
export function NotificationBell() {
  const root = useRouteLoaderData<BellData>("root");
  const page = useRouteLoaderData<BellData>("routes/notifications");
  const unread = page?.unread ?? root?.unread ?? 0;
  const label = unread === 0 ? "Notifications" : `Notifications, ${String(unread)} unread`;
  return (
    <Link to="/notifications" className="bell" aria-label={label}>
      <BellIcon />
      {unread > 0 ? (
        <span className="bell-count" aria-hidden="true">
          {unread > 99 ? "99+" : unread}
        </span>
      ) : null}
    </Link>
  );
}
