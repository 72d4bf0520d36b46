import { dateTime } from "./format.js";

/** "Added 3 May 2031 · last used 4 May 2031": when a credential was made and last used. */
export function UseStamps(props: { made: string; madeAt: string; lastUsedAt: string | null }) {
  return (
    <span className="security-meta">
      {props.made} <time dateTime={props.madeAt}>{dateTime(props.madeAt)}</time>
      {" · "}
      {props.lastUsedAt ? (
        <>
          last used <time dateTime={props.lastUsedAt}>{dateTime(props.lastUsedAt)}</time>
        </>
      ) : (
        "never used"
      )}
    </span>
  );
}
