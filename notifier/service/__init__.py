"""The composition root: wires source -> queue -> workers -> rules -> delivery, plus HTTP."""
