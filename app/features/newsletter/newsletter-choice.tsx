/** What the publish controls say about mailing a post (decision 028). */
export interface NewsletterOffer {
  /** The addresses it would go to now; undefined while it is being counted. */
  audience: number | undefined;
  /** What is chosen first: the post's own choice, or the site's default for a new one. */
  choice: "send" | "none";
  /** When it was mailed, if it was: it never goes again. */
  sentAt?: string | null | undefined;
}

const subscribers = (count: number) => `${String(count)} subscriber${count === 1 ? "" : "s"}`;

/**
 * "Publish and e-mail subscribers" or "Publish only", with how many would get it; a post mailed
 * once says so instead (it never goes again). Sent as the form's `newsletter` field.
 */
export function NewsletterChoice(props: { offer: NewsletterOffer; idPrefix?: string }) {
  const { offer } = props;
  if (offer.sentAt) {
    return <p className="muted">This post was e-mailed to its subscribers.</p>;
  }
  const hint = `${props.idPrefix ?? "field"}-newsletter-hint`;
  return (
    <fieldset className="settings-group newsletter-choice" aria-describedby={hint}>
      <legend>When it is published</legend>
      <label className="radio-label">
        <input
          type="radio"
          name="newsletter"
          value="send"
          defaultChecked={offer.choice === "send"}
        />{" "}
        Publish and e-mail subscribers
      </label>
      <label className="radio-label">
        <input
          type="radio"
          name="newsletter"
          value="none"
          defaultChecked={offer.choice === "none"}
        />{" "}
        Publish only
      </label>
      <p id={hint} className="field-hint">
        {offer.audience === undefined
          ? "Counting subscribers…"
          : offer.audience === 0
            ? "Nobody has subscribed yet."
            : `${subscribers(offer.audience)} would get it by e-mail, once.`}
      </p>
    </fieldset>
  );
}
