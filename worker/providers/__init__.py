"""Providers behind one small interface (see base.Provider).

A provider type maps to "module:Class"; the module is imported only when that
provider is used, so a call never pays for libraries it does not touch.  A new
backend is a new module here, or a "module:Class" of the user's own in the
config file.
"""

BUILTIN_TYPES = {
    "ddgs": "worker.providers.ddgs:DdgsProvider",
    "local": "worker.providers.local:LocalFetchProvider",
    "exa": "worker.providers.exa:ExaProvider",
    "brave": "worker.providers.brave:BraveProvider",
}


def load_class(type_name):
    """The provider class for a builtin type or a "module:attr" reference."""
    from importlib import import_module

    ref = BUILTIN_TYPES.get(type_name, type_name)
    module_name, _, attr = ref.partition(":")
    module = import_module(module_name)
    return getattr(module, attr)


def build(spec, call, tool):
    """The provider for ``spec``, checked to answer ``tool`` ("search" or "fetch")."""
    from ..errors import WorkerError

    provider = load_class(spec.type)(spec, call)
    if tool not in provider.tools:
        raise WorkerError("invalid_argument", "provider %r (%s) cannot %s" % (spec.name, spec.type, tool),
                          hint="choose a provider that supports %s with --provider" % tool)
    return provider
