"""synthslides: realistic slide decks generated to PDF, with questions answerable by construction.

``deck`` composes a deck's content, ``pdf`` draws it, the ``ask_*`` modules derive candidate
questions of each kind from the same content, ``questions`` chooses a mix, and ``dataset``
writes it all. The adapter is ``docqa.datasets.synthslides.adapter``.
"""
