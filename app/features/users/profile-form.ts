/**
 * The edit-profile form as the API's body: `socialMedia.N.name` / `socialMedia.N.url` fields become
 * the socialMedia list. Used by the browser's check and by the action, so both read it alike.
 */
export function profileValues(entries: Iterable<[string, FormDataEntryValue]>) {
  const values: Record<string, string> = {};
  const links = new Map<number, { name: string; url: string }>();
  for (const [key, value] of entries) {
    if (typeof value !== "string") continue;
    const match = /^socialMedia\.(\d)\.(name|url)$/.exec(key);
    if (match) {
      const index = Number(match[1]);
      const link = links.get(index) ?? { name: "", url: "" };
      link[match[2] === "name" ? "name" : "url"] = value;
      links.set(index, link);
    } else {
      values[key] = value;
    }
  }
  return {
    username: values.username,
    email: values.email,
    bio: values.bio,
    password: values.password,
    currentPassword: values.currentPassword,
    socialMedia: [...links.entries()].sort(([a], [b]) => a - b).map(([, link]) => link),
  };
}
