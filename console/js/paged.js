// A list loaded page by page with the API's own tokens (docs/api.md#lists): the first
// page, then "Load more" follows the answer's Link (or X-Next-Token) until there is none.

export const PAGE_SIZE = 50;

export class PagedList {
  constructor(api) {
    this.api = api;
    this.items = [];
    this.next = null;
  }

  async load(path, query = {}) {
    const page = await this.api.list(path, {...query, limit: PAGE_SIZE});
    this.items = page.items;
    this.next = page.next;
  }

  async more() {
    if (!this.next) return;
    const page = await this.api.page(this.next);
    this.items = this.items.concat(page.items);
    this.next = page.next;
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
