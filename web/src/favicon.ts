/**
 * The page's icon: roost's diamond, with an amber dot while some job needs you, so that a tab in
 * the background says it too. Made here as data (the page's CSP allows `img-src data:`), so that
 * it is there from the first moment, with no request.
 */

const DIAMOND =
  '<path d="M32 3 61 32 32 61 3 32Z" fill="#2f6feb"/>' +
  '<path d="M32 19 45 32 32 45 19 32Z" fill="#fff" fill-opacity=".4"/>';
const DOT = '<circle cx="50" cy="14" r="12" fill="#f6c453" stroke="#fff" stroke-width="4"/>';

const icon = (dot: boolean) =>
  `data:image/svg+xml,${encodeURIComponent(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">${DIAMOND}${dot ? DOT : ""}</svg>`,
  )}`;

let link: HTMLLinkElement | null = null;

/** Sets the icon, with the dot when `needYou`. */
export function showFavicon(needYou: boolean): void {
  if (!link) {
    link = document.createElement("link");
    link.rel = "icon";
    link.type = "image/svg+xml";
    document.head.append(link);
  }
  const href = icon(needYou);
  if (link.getAttribute("href") !== href) link.setAttribute("href", href);
}
