"""Providers behind one small interface (base.Provider), one module per provider.

registry.py is the table of builtin providers and loads a provider's module only
when that provider is used, so a call never pays for libraries it does not touch.
A new backend is a new module here and a row in the registry, or a "module:Class"
of the user's own in the config file.
"""
