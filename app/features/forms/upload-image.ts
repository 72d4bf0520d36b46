/** An uploaded body image, as `POST /api/posts/images` answers (DESIGN.md 9). */
export interface UploadedImage {
  url: string;
  width: number;
  height: number;
}

export type UploadOutcome = { ok: true; image: UploadedImage } | { ok: false; message: string };

const FAILED = "The image could not be uploaded, please try again";

function messageOf(text: string, status: number) {
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === "string" && body.message !== "") return body.message;
  } catch {
    // Not JSON (a proxy's page): the general message below.
  }
  return status === 401 ? "Please log in again to upload images" : FAILED;
}

/**
 * Sends one image as the multipart field `image`. XMLHttpRequest rather than fetch: only it reports
 * upload progress, which `onProgress` gets as a fraction from 0 to 1.
 */
export function uploadImage(
  url: string,
  file: File,
  onProgress: (fraction: number) => void,
): Promise<UploadOutcome> {
  return new Promise((resolve) => {
    const request = new XMLHttpRequest();
    request.open("POST", url);
    request.setRequestHeader("accept", "application/json");
    request.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    });
    request.addEventListener("load", () => {
      if (request.status !== 201) {
        resolve({ ok: false, message: messageOf(request.responseText, request.status) });
        return;
      }
      try {
        const image = JSON.parse(request.responseText) as Partial<UploadedImage>;
        if (typeof image.url !== "string") throw new Error("no url");
        resolve({
          ok: true,
          image: { url: image.url, width: Number(image.width), height: Number(image.height) },
        });
      } catch {
        resolve({ ok: false, message: FAILED });
      }
    });
    request.addEventListener("error", () => {
      resolve({ ok: false, message: "The network is unavailable: the image was not uploaded" });
    });
    const form = new FormData();
    form.append("image", file);
    request.send(form);
  });
}
