"""Answers hello, then prints something that is not JSON."""
from _hello import after_hello

after_hello(lambda: print("Traceback? no: just garbage", flush=True))
