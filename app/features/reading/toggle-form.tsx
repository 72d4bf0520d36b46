import { Form, useLocation } from "react-router";

/**
 * A toggle posted to its own action (`/follow`, `/bookmark`), which comes back to this page: a
 * plain form, so it works before hydration and without JavaScript; with it, the page stays put.
 */
export function ToggleForm(props: {
  action: "/follow" | "/bookmark";
  fields: Record<string, string>;
  children: React.ReactNode;
}) {
  const { pathname, search, hash } = useLocation();
  return (
    <Form method="post" action={props.action} className="inline-form" preventScrollReset>
      {Object.entries(props.fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <input type="hidden" name="returnTo" value={`${pathname}${search}${hash}`} />
      {props.children}
    </Form>
  );
}
