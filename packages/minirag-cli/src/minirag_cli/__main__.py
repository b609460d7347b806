"""``python -m minirag_cli`` and the ``minirag-cli`` console script."""

from minirag_cli.app import main

__all__ = ["main"]

if __name__ == "__main__":
    main()
