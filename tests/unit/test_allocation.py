"""Where an approval takes each line's units from (inventory.allocation): a plain function
of the lines, their products' stock per warehouse and the warehouses' priorities."""

from common.stock import moves
from common.stock.records import Product, StockRow, Warehouse
from inventory import allocation
from inventory.rules import LineRequest

# PRINCIPAL (id 1) at the default priority; NORTE (2) taken before it, SUR (3) after.
WAREHOUSES = {
    ident: Warehouse(
        id=ident, codigo=code, nombre=code, region=None, prioridad=prio, creado_en="2026"
    )
    for ident, code, prio in ((1, "PRINCIPAL", 100), (2, "NORTE", 10), (3, "SUR", 200))
}


def product(ident: int, rows: dict[int, int], reserved: dict[int, int] | None = None) -> Product:
    reserved = reserved or {}
    existencias = tuple(
        StockRow(bodega_id=b, stock_actual=n, stock_reservado=reserved.get(b, 0))
        for b, n in sorted(rows.items())
    )
    return Product(
        id=ident,
        sku=f"P-{ident}",
        nombre="x",
        precio_unitario=1,
        stock_actual=sum(rows.values()),
        umbral_minimo=0,
        bodega=None,
        descripcion=None,
        stock_reservado=sum(reserved.values()),
        existencias=existencias,
    )


def line(linea: int, producto_id: int, cantidad: int, bodega_id: int | None = None):
    return LineRequest(linea=linea, producto_id=producto_id, cantidad=cantidad, bodega_id=bodega_id)


def test_by_priority_each_line_takes_from_the_first_warehouses_as_much_as_each_has():
    products = {7: product(7, {1: 5, 2: 2, 3: 9}, reserved={2: 1})}
    found = allocation.plan([line(1, 7, 4)], products, WAREHOUSES, moves.BY_PRIORITY)
    assert found.feasible
    assert found.assigned == {1: {2: 1, 1: 3}}  # NORTE's one available, then PRINCIPAL


def test_the_fewest_warehouses_cover_the_whole_order():
    # By priority: line 1 from NORTE and PRINCIPAL, line 2 from NORTE: two warehouses.
    # SUR alone covers both lines.
    products = {7: product(7, {1: 3, 2: 1, 3: 4}), 8: product(8, {2: 2, 3: 2})}
    lines = [line(1, 7, 4), line(2, 8, 2)]
    by_priority = allocation.plan(lines, products, WAREHOUSES, moves.BY_PRIORITY)
    assert by_priority.assigned == {1: {2: 1, 1: 3}, 2: {2: 2}}
    fewest = allocation.plan(lines, products, WAREHOUSES, moves.FEWEST_WAREHOUSES)
    assert fewest.assigned == {1: {3: 4}, 2: {3: 2}}


def test_a_pinned_line_takes_only_from_its_warehouse():
    products = {7: product(7, {1: 5, 3: 2})}
    pinned = allocation.plan([line(1, 7, 2, bodega_id=3)], products, WAREHOUSES, "PRIORIDAD")
    assert pinned.assigned == {1: {3: 2}}
    short = allocation.plan([line(1, 7, 3, bodega_id=3)], products, WAREHOUSES, "PRIORIDAD")
    assert not short.feasible and short.assigned == {}
    assert [d["field"] for d in short.short] == ["lineas[0].cantidad"]


def test_a_short_line_or_an_unknown_product_plans_nothing_for_any_line():
    products = {7: product(7, {1: 5}), 8: product(8, {1: 1, 2: 1})}
    short = allocation.plan([line(1, 7, 1), line(2, 8, 3)], products, WAREHOUSES, "PRIORIDAD")
    assert short.assigned == {} and len(short.short) == 1
    assert "only 2 of product 8 available" in short.short[0]["message"]
    missing = allocation.plan([line(1, 7, 1), line(2, 9, 1)], products, WAREHOUSES, "PRIORIDAD")
    assert missing.missing == [9] and missing.assigned == {}
