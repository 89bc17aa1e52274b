"""Datasets: loaders for the shipped NLVR/NLVR2 files and for the official files a user has."""
