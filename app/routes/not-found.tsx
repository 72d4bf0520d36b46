import { data } from "react-router";
import { NotFound } from "../root.js";

export function loader() {
  // The status matters as much as the page: crawlers and caches must see a 404.
  throw data(null, { status: 404 });
}

export default NotFound;
