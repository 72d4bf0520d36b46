import { Link, useRouteLoaderData } from "react-router";
import { BellIcon } from "../../ui/icons.js";

/** What the notifications page tells the bell. */
interface BellData {
  unread?: number | undefined;
}

/**
 * The header's bell with the viewer's unread count (the root's). On the notifications page its own
 * count wins: that page marks what it shows read while the root's count is being read alongside it.
 */
export function NotificationBell(props: { unread: number }) {
  const page = useRouteLoaderData<BellData>("routes/notifications");
  const unread = page?.unread ?? props.unread;
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
