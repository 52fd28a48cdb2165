"""The strongly connected components of a directed graph: the circles the include checker
(tests/python/test_layers.py) and the call-graph checker (tests/integration/test_call_cycles.py)
look for, found once here."""


def strongly_connected(graph):
    """Tarjan's algorithm, iterative: the strongly connected components of {node: set(nodes)}."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    for start in sorted(graph):
        if start in index:
            continue
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        work = [(start, iter(sorted(graph.get(start, ()))))]
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.add(w)
                        if w == node:
                            break
                    comps.append(comp)
    return comps
