import { useRouteLoaderData } from "react-router";
import { MenuLinks, type AccountData } from "../features/layout/header.js";
import { pageMeta } from "../meta.js";
import type { loader as rootLoader } from "../root.js";
import { useViewerData } from "../features/viewer/islands.js";
import type { Route } from "./+types/menu";

/** Where the menu button leads without JavaScript: the side menu's entries as a page. */
export function loader({ context }: Route.LoaderArgs) {
  return { site: context.site };
}

export const meta = ({ loaderData }: Route.MetaArgs) => [
  ...pageMeta(loaderData.site, {
    title: "Menu",
    description: "Every page of the site.",
    path: "/menu",
  }),
  { name: "robots", content: "noindex" },
];

export default function Menu() {
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const user = useViewerData<AccountData>(root?.viewer)?.user;
  return (
    <section className="form-page">
      <h1>Menu</h1>
      <nav aria-label="Menu" className="menu-page card">
        <MenuLinks
          user={user}
          categories={root?.categories ?? []}
          links={root?.site.navigation.header ?? []}
          categoriesOpen
        />
      </nav>
    </section>
  );
}
