"""The hosted room bus (`loreweaver/wire/layer.py`) subclasses channels-redis's pub/sub
layer and leans on names the library keeps private. channels-redis is pinned exactly
(requirements.txt); these tests make an upgrade that changes one of those names fail
here instead of breaking the bus quietly (docs/architecture.md, "The room bus").

Each private name `layer.py` overrides, calls or reads is listed below, with the
signature and kind (coroutine function or not) the module expects. A method the module
replaces outright, or calls and depends on the body of, is also pinned by a hash of
its source in channels-redis 4.3.0, the version `layer.py` was written against.

When a test here fails after an upgrade: read what changed in channels-redis (its
changelog and the method's new source), adapt `layer.py` to it, then update the
signature, kind or hash below (the failure prints the new ones).
"""

from __future__ import annotations

import ast
import asyncio
import hashlib
import inspect
import textwrap
from pathlib import Path

import pytest
from channels_redis import pubsub, utils

from loreweaver.wire import layer

SHARD, LOOP_LAYER, CHANNEL_LAYER = (
    pubsub.RedisSingleShardConnection,
    pubsub.RedisPubSubLoopLayer,
    pubsub.RedisPubSubChannelLayer,
)

# What layer.py relies on, per library class: name -> (signature, coroutine function?,
# source hash or None). A hash pins a method layer.py replaces (its copy must follow
# the library's) or calls for its behaviour (it must still do what layer.py assumes).
# The hash is sha256(inspect.getsource(method))[:16] in channels-redis 4.3.0.
METHODS = {
    SHARD: {
        # replaced: a connection that never retries, named for CLIENT LIST
        "_ensure_redis": ("(self)", False, "ba228d3cee7116dc"),
        # replaced: the receive loop that reports a lost connection
        "_do_receiving": ("(self)", True, "a822736dcb875e43"),
        # replaced (public): publishing outside the shard's lock, answering the count
        "publish": ("(self, channel, message)", True, "5a18093dbcb440f5"),
        # replaced (public): subscribing counts once Redis confirms
        "subscribe": ("(self, channel)", True, "173a8f40b17e4e28"),
        # called: starts the receive task, which must run our `_do_receiving`
        "_ensure_receiver": ("(self)", False, "dd56277da120f858"),
        # called: hands a received message to the channels and groups of the process
        "_receive_message": ("(self, message)", False, "2f5f46af28e8ed76"),
    },
    LOOP_LAYER: {
        # replaced (public): answers Redis's PUBLISH count
        "group_send": ("(self, group, message)", True, "5d5f908ce40f335b"),
        "_get_group_channel_name": ("(self, group)", False, None),
        "_get_shard": ("(self, channel_or_group_name)", False, None),
    },
    CHANNEL_LAYER: {
        # replaced: makes our loop layer instead of the library's
        "_get_layer": ("(self)", False, "1862b87a25ac72b2"),
    },
}

# Module functions of channels-redis layer.py calls: name -> (signature, hash).
FUNCTIONS = {
    # called by our `_get_layer` as the library's does: flushes the loop layer on close
    "_wrap_close": (utils, "(proxy, loop)", "3d610af1683772a9"),
}

# Attributes the library's constructors set that layer.py reads or writes, with the
# type of their value when a layer is new (None: not connected yet).
ATTRIBUTES = {
    SHARD: {"_redis": type(None), "_pubsub": type(None), "_lock": asyncio.Lock, "_subscribed_to": set},
    LOOP_LAYER: {"_shards": list},
    CHANNEL_LAYER: {"_layers": dict, "_args": tuple, "_kwargs": dict},
}

# Public methods layer.py extends, calling the library's through super(): only their
# signatures must stay.
EXTENDED = {
    SHARD: {"__init__": "(self, host, channel_layer)", "unsubscribe": "(self, channel)", "flush": "(self)"},
    LOOP_LAYER: {
        "__init__": "(self, hosts=None, prefix='asgi', on_disconnect=None, on_reconnect=None,"
        " channel_layer=None, **kwargs)"
    },
    CHANNEL_LAYER: {
        "__init__": "(self, *args, symmetric_encryption_keys=None, serializer_format='msgpack', **kwargs)"
    },
}

# Our subclass of each library class.
OURS = {SHARD: layer._Shard, LOOP_LAYER: layer._LoopLayer, CHANNEL_LAYER: layer.RoomPubSubLayer}


def _signature(function) -> str:
    """The parameters of `function` (names, kinds, defaults), without annotations."""
    signature = inspect.signature(function)
    parameters = [p.replace(annotation=inspect.Parameter.empty) for p in signature.parameters.values()]
    return str(signature.replace(parameters=parameters, return_annotation=inspect.Signature.empty))


def _source_hash(function) -> str:
    return hashlib.sha256(inspect.getsource(function).encode()).hexdigest()[:16]


def _calls_super(method, name: str) -> bool:
    tree = ast.parse(textwrap.dedent(inspect.getsource(method)))
    return any(
        isinstance(node, ast.Attribute)
        and node.attr == name
        and isinstance(node.value, ast.Call)
        and getattr(node.value.func, "id", None) == "super"
        for node in ast.walk(tree)
    )


def _new_library_instances() -> dict[type, object]:
    # Constructing connects to nothing: connections open on first use.
    channel_layer = CHANNEL_LAYER(hosts=["redis://127.0.0.1:1"])
    loop_layer = LOOP_LAYER(hosts=["redis://127.0.0.1:1"], channel_layer=channel_layer)
    return {CHANNEL_LAYER: channel_layer, LOOP_LAYER: loop_layer, SHARD: loop_layer._shards[0]}


@pytest.mark.parametrize(
    ("library_class", "name"),
    [(cls, name) for cls, names in METHODS.items() for name in names],
    ids=lambda value: getattr(value, "__name__", value),
)
def test_each_library_method_the_bus_relies_on_is_the_one_it_was_written_against(library_class, name):
    expected_signature, expected_coroutine, expected_hash = METHODS[library_class][name]
    method = getattr(library_class, name, None)
    assert method is not None, f"channels-redis's {library_class.__name__} has no {name} any more"
    assert _signature(method) == expected_signature, f"{library_class.__name__}.{name}{_signature(method)}"
    assert inspect.iscoroutinefunction(method) == expected_coroutine, f"{name}: coroutine function changed"
    if expected_hash is not None:
        assert _source_hash(method) == expected_hash, (
            f"channels-redis's {library_class.__name__}.{name} changed (hash now {_source_hash(method)}): "
            "read the change, adapt layer.py, then update the hash"
        )
    ours = getattr(OURS[library_class], name)
    if ours is not method:  # an override: same parameters and kind as the library's
        assert _signature(ours) == _signature(method), f"layer.py's {name}{_signature(ours)}"
        assert inspect.iscoroutinefunction(ours) == inspect.iscoroutinefunction(method)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_each_library_function_the_bus_calls_is_the_one_it_was_written_against(name):
    module, expected_signature, expected_hash = FUNCTIONS[name]
    function = getattr(module, name, None)
    assert function is not None, f"{module.__name__} has no {name} any more"
    assert _signature(function) == expected_signature
    assert not inspect.iscoroutinefunction(function)
    assert _source_hash(function) == expected_hash, (
        f"{module.__name__}.{name} changed (hash now {_source_hash(function)}): "
        "read the change, adapt layer.py, then update the hash"
    )


def test_each_library_attribute_the_bus_reads_is_set_by_the_library():
    instances = _new_library_instances()
    for library_class, attributes in ATTRIBUTES.items():
        for name, kind in attributes.items():
            instance = instances[library_class]
            # vars(), not hasattr(): the channel layer hands unknown names to its loop layer.
            assert name in vars(instance), f"channels-redis's {library_class.__name__} no longer sets {name}"
            assert isinstance(getattr(instance, name), kind), f"{library_class.__name__}.{name}"


def test_each_library_method_the_bus_extends_keeps_its_signature():
    for library_class, methods in EXTENDED.items():
        for name, expected_signature in methods.items():
            assert _signature(getattr(library_class, name)) == expected_signature, (
                f"{library_class.__name__}.{name}"
            )


def test_every_override_is_either_pinned_or_extends_through_super():
    """A method layer.py adds to a library class replaces the library's (pinned above)
    or calls it (its signature kept above), never anything unchecked."""
    for library_class, ours in OURS.items():
        for name, method in vars(ours).items():
            if not callable(method) or not hasattr(library_class, name):
                continue
            if _calls_super(method, name):
                assert name in EXTENDED[library_class], f"{ours.__name__}.{name} extends an unchecked method"
            else:
                assert METHODS[library_class].get(name, (None, None, None))[2], (
                    f"{ours.__name__}.{name} replaces channels-redis's without a pinned hash"
                )


def test_every_private_name_of_channels_redis_layer_py_uses_is_checked_here():
    """layer.py uses no private name of the library that this file does not check (a
    name of ours the library starts using fails here too: the two would clash)."""
    tree = ast.parse(Path(layer.__file__).read_text())
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            used.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            used.add(node.name)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("channels_redis"):
            used.update(alias.name for alias in node.names)
    private = {name for name in used if name.startswith("_") and not name.startswith("__")}
    instances = _new_library_instances()
    # vars(), not hasattr(): the channel layer hands unknown names to its loop layer.
    namespaces = [*map(vars, OURS), *map(vars, instances.values()), vars(pubsub), vars(utils)]
    of_the_library = {name for name in private if any(name in namespace for namespace in namespaces)}
    checked = {
        name
        for name in ({name for names in METHODS.values() for name in names} | set(FUNCTIONS))
        | {name for names in ATTRIBUTES.values() for name in names}
        if name.startswith("_")
    }
    assert of_the_library == checked
    # layer.py's docstring names each of them, for whoever reads the module.
    for name in checked:
        assert f"`{name}`" in layer.__doc__, f"layer.py's docstring does not name {name}"
