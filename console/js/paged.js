// A list loaded page by page with the API's own tokens (docs/api.md#lists): the first
// page, then "Load more" follows the answer's Link (or X-Next-Token) until there is none.

export const PAGE_SIZE = 50;

export class PagedList {
  constructor(api) {
    this.api = api;
    this.items = [];
    this.next = null;
    this.asked = 0;  // loads asked for: only the latest one's answer is kept
    this.paging = false;
  }

  /** The first page; an answer that comes after a later load was asked (another filter
   * chosen meanwhile: a busy gateway answers in any order) is dropped, and false. */
  async load(path, query = {}) {
    const asked = ++this.asked;
    const page = await this.api.list(path, {...query, limit: PAGE_SIZE});
    if (asked !== this.asked) return false;
    this.items = page.items;
    this.next = page.next;
    return true;
  }

  /** The next page, unless the list was loaded anew meanwhile or a page is on its way. */
  async more() {
    if (!this.next || this.paging) return;
    const asked = this.asked;
    this.paging = true;
    try {
      const page = await this.api.page(this.next);
      if (asked !== this.asked) return;
      this.items = this.items.concat(page.items);
      this.next = page.next;
    } finally {
      this.paging = false;
    }
  }

  replace(item) {
    this.items = this.items.map((each) => (each.id === item.id ? item : each));
  }

  remove(id) {
    this.items = this.items.filter((each) => each.id !== id);
  }

  /** A created item belongs at the end (ascending ids), once the last page is loaded. */
  added(item) {
    if (!this.next) this.items = this.items.concat([item]);
  }
}
