import QRCode from "qrcode";

/**
 * The otpauth:// address as a QR code an authenticator app scans: an SVG in a data: address
 * (the pages' policy allows data: images), dark on white in both themes so every camera reads it.
 */
export async function qrCodeImage(text: string) {
  const svg = await QRCode.toString(text, {
    type: "svg",
    margin: 2,
    errorCorrectionLevel: "M",
    color: { dark: "#000000", light: "#ffffff" },
  });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;
}
