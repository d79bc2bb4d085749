"""Generates cli/generated/nvtx_roles.inc: what the reader (cli/read/nvtx.c,
struct nvtx_fn) makes of each recorded NVTX call, from the "nvtx_range"
rules of gen/specs/nvtx.py, the parameters named there turned into argument
indexes from the header's declarations:

    {name, NV_* operation, argument holding the domain (-1: the default
     domain), argument holding the message or the range id (-1: none),
     MSG_* kind of message},

an initializer list, #included inside the reader's array."""
import cuda_model

OPS = {"push": "NV_PUSH", "pop": "NV_POP", "start": "NV_START", "end": "NV_END", "mark": "NV_MARK",
       "register": "NV_REGISTER"}
MESSAGES = {None: "MSG_NONE", "wide": "MSG_NONE", "string": "MSG_STR", "attributes": "MSG_ATTR"}


def roles(model):
    layer = next(l for l in model.layers if l.name == "nvtx")
    fns = {f.name: f for f in layer.functions}
    out = []
    for name, r in layer.spec_file.functions.items():
        nv = r.get("nvtx_range")
        if not nv:
            continue
        f = fns[name]
        idx = {p.name: i for i, p in enumerate(f.params)}

        def arg(k):
            if nv.get(k) is None:
                return -1
            if nv[k] not in idx:
                raise SystemExit("gen: gen/specs/nvtx.py: %s has no parameter %r (nvtx_range %s)" % (name, nv[k], k))
            return idx[nv[k]]
        out.append((name, OPS[nv["op"]], arg("domain"), arg("arg"), MESSAGES[nv["message"]]))
    return out


def generate(model):
    out = [cuda_model.banner("nvtx_roles_generator.py"),
           "/* {name, operation, domain argument (-1: the default domain), message or",
           " * range-id argument, message kind}: gen/specs/nvtx.py \"nvtx_range\". */"]
    for name, op, dom, arg, msg in roles(model):
        out.append('{"%s", %s, %d, %d, %s},' % (name, op, dom, arg, msg))
    return "\n".join(out) + "\n"


OUTPUT = "cli/generated/nvtx_roles.inc"
