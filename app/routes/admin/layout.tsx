import { NavLink, Outlet } from "react-router";
import { refusesMembers, requireAdmin } from "../../features/admin/guard.server.js";
import type { Route } from "./+types/layout";

export function loader({ context, request }: Route.LoaderArgs) {
  // SPEC's dashboard pages send anyone but an admin home; later ones answer a member themselves.
  if (!refusesMembers(request)) requireAdmin(context);
  return null;
}

const SECTIONS = [
  { to: "/admin-dashboard", label: "Dashboard", end: true },
  { to: "/admin-dashboard/stats", label: "Stats" },
  { to: "/admin-dashboard/users-table", label: "Users" },
  { to: "/admin-dashboard/posts-table", label: "Posts" },
  { to: "/admin-dashboard/categories-table", label: "Categories" },
  { to: "/admin-dashboard/pages", label: "Pages" },
  { to: "/admin-dashboard/comments-table", label: "Comments" },
  { to: "/admin-dashboard/reports-table", label: "Reports" },
  { to: "/admin-dashboard/audit-log", label: "Audit log" },
  { to: "/admin-dashboard/site-settings", label: "Site settings" },
  { to: "/admin-dashboard/webhooks", label: "Webhooks" },
];

export default function AdminLayout() {
  return (
    <div className="admin">
      <nav aria-label="Dashboard" className="admin-menu">
        <ul>
          {SECTIONS.map((section) => (
            <li key={section.to}>
              <NavLink to={section.to} end={section.end ?? false}>
                {section.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <div className="admin-main">
        <Outlet />
      </div>
    </div>
  );
}
