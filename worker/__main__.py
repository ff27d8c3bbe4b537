from .main import main

main(prog="python -m worker")
